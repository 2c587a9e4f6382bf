-- An elicitation's form fields in the server's order (a JSON array of
-- property names: the schema's own object loses its key order once read),
-- and the page a URL-mode elicitation sends the person to (MCP 2025-11).
ALTER TABLE clarifications ADD COLUMN property_order TEXT
  CHECK (property_order IS NULL OR json_valid(property_order));
ALTER TABLE clarifications ADD COLUMN url TEXT;
