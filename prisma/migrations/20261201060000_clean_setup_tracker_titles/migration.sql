-- Titles come from the decision, never the raw message (issue 14). Trackers made in the setup chat were titled with
-- the person's first message, address and all ("watch https://shop.example/widget"). This cleans those titles the
-- way server/intelligence/setup/tracker-title.ts titles new trackers: addresses and place ids removed, the first
-- sentence of three words or more, stray punctuation trimmed, capitalised, at most 120 characters; nothing left →
-- "Watch <page title | place name | host | this place>". tests/integration/tracker-titles.test.ts holds both to the same examples.
-- Only trackers with a setup conversation whose title holds an address are touched (API-made ones keep theirs).
WITH "raw" AS (
  SELECT t."id", t."capabilityInput", s."sample",
         btrim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
           t."decision",
           '\s*(?:\y(?:at|from|via)\y\s*:?\s*)?(?:https?://|www\.)[^\s<>"''`)\]]*[^\s<>"''`)\].,;:!?]|\s*\y(?:place[\s_-]?id\s*[:=]?\s*)?ChIJ[0-9A-Za-z_-]{10,}',
           ' ', 'gi'),
           '[(\[{<]\s*[)\]}>]', ' ', 'g'),
           '\s+', ' ', 'g'),
           ' ([.,;:!?])', '\1', 'g')) AS "text"
  FROM "Tracker" t
  JOIN "SetupSession" s ON s."trackerId" = t."id"
  WHERE t."decision" ~* '(https?://|www\.)|ChIJ[0-9A-Za-z_-]{10,}'
),
"sentence" AS (
  SELECT r.*,
         COALESCE(
           (SELECT x."s"
              FROM unnest(regexp_split_to_array(r."text", '(?<=[.!?])\s+')) WITH ORDINALITY AS x("s", "n")
             WHERE (SELECT count(*) FROM regexp_split_to_table(x."s", '\s+') AS w("word") WHERE w."word" ~ '[[:alpha:]]') >= 3
             ORDER BY x."n"
             LIMIT 1),
           (regexp_split_to_array(r."text", '(?<=[.!?])\s+'))[1],
           ''
         ) AS "sentence"
  FROM "raw" r
),
"trimmed" AS (
  SELECT s."id", s."capabilityInput", s."sample",
         regexp_replace(regexp_replace(s."sentence", '^[\s"''“”‘’:;,.!?\-–—]+', ''), '[\s"''“”‘’:;,.\-–—(\[{]+$', '') AS "title"
  FROM "sentence" s
),
"titled" AS (
  SELECT t."id",
         CASE
           WHEN length(regexp_replace(t."title", '[^[:alpha:]]', '', 'g')) >= 3
            AND (SELECT count(*) FROM regexp_split_to_table(t."title", '\s+') AS w("word") WHERE w."word" ~ '[[:alpha:]]') >= 2
             THEN upper(left(t."title", 1)) || substr(t."title", 2)
           ELSE 'Watch ' || COALESCE(
             NULLIF(btrim(regexp_replace(t."sample" -> 'results' -> 'document' ->> 'title', '\s+', ' ', 'g')), ''),
             NULLIF(btrim(regexp_replace(t."sample" -> 'results' -> 'place' ->> 'name', '\s+', ' ', 'g')), ''),
             regexp_replace(lower(substring(t."capabilityInput" ->> 'url' FROM '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/?#:]+)')), '^www\.', ''),
             'this place'
           )
         END AS "title"
  FROM "trimmed" t
)
UPDATE "Tracker"
SET "decision" = CASE
      WHEN length(titled."title") <= 120 THEN titled."title"
      ELSE regexp_replace(regexp_replace(left(titled."title", 119), '\s+\S*$', ''), '[\s,;:\-–—]+$', '') || '…'
    END
FROM "titled"
WHERE "Tracker"."id" = titled."id";
