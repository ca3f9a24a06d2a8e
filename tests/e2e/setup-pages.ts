/** Fixture pages shared by the setup journeys (rules and AI). */
export const SETUP_PRICING_HTML = `<!doctype html><html><head><title>Acme pricing</title>
<link rel="canonical" href="/setup/acme/pricing">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Acme Pro",
"offers":{"@type":"Offer","price":"45.00","priceCurrency":"USD","availability":"https://schema.org/InStock"}}</script>
</head><body><main><h1>Pricing</h1><h2>Pro</h2><p>Pro plan <span class="price">$45</span> per month</p>
<h2>Team</h2><p>Team plan $99 per month</p></main></body></html>`;
