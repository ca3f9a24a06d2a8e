/** The trackers `npm run demo` creates against the demo site (css extractors, so rules mode works). */
export function demoTrackers(siteUrl: string) {
  return [
    {
      decision: "Is Acme undercutting our Pro plan price?",
      capability: "web.scrape",
      capabilityInput: { url: `${siteUrl}/pricing` },
      scheduleMinutes: 15,
      definition: {
        fields: [
          {
            name: "price",
            type: "money",
            currency: "USD",
            description: "Pro plan price per seat and month",
            extractor: { kind: "css", selector: "#price" },
          },
          {
            name: "plan",
            type: "string",
            description: "Name of the plan",
            extractor: { kind: "css", selector: "#plan" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: { price: { kind: "numeric", relative: 0.05 }, plan: { kind: "any_change" } },
      },
    },
    {
      decision: "Are Acme's customers getting less happy?",
      capability: "web.scrape",
      capabilityInput: { url: `${siteUrl}/reviews` },
      scheduleMinutes: 60,
      definition: {
        fields: [
          {
            name: "rating",
            type: "number",
            description: "Average customer rating out of 5",
            extractor: { kind: "css", selector: "#rating" },
          },
          {
            name: "review_count",
            type: "integer",
            description: "Number of reviews",
            extractor: { kind: "css", selector: "#reviews" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: {
          rating: { kind: "numeric", absolute: 0.3 },
          review_count: { kind: "numeric", relative: 0.25, direction: "up" },
        },
      },
    },
    {
      decision: "Can we still order widgets from the supplier?",
      capability: "web.scrape",
      capabilityInput: { url: `${siteUrl}/store/widget` },
      scheduleMinutes: 15,
      definition: {
        fields: [
          {
            name: "stock_status",
            type: "string",
            description: "Stock status shown on the page",
            extractor: { kind: "css", selector: "#stock" },
          },
          {
            name: "units_left",
            type: "integer",
            description: "Units left",
            extractor: { kind: "css", selector: "#units" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: { stock_status: { kind: "any_change" }, units_left: { kind: "numeric", absolute: 10 } },
      },
    },
    {
      decision: "Is Acme repositioning itself?",
      capability: "web.scrape",
      capabilityInput: { url: `${siteUrl}/` },
      scheduleMinutes: 360,
      definition: {
        fields: [
          {
            name: "tagline",
            type: "string",
            description: "The homepage tagline",
            extractor: { kind: "css", selector: "#tagline" },
          },
        ],
        identityRule: { kind: "canonical_url" },
        materiality: {
          tagline: {
            kind: "ask_agent",
            guidance: "Material if the target customer or positioning changes, not for rewording.",
          },
        },
      },
    },
  ];
}
