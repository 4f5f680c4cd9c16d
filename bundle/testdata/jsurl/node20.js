// Writes again the second field of each vector in node20.json: what
// node's URL (the WHATWG URL parser) says of the url in the first, "ok" or
// "refused". A third field, kept as it is, says why jsURLRefuses may not
// agree ("idna": a host it leaves to the url rules). Run it with node 20:
//
//	node bundle/testdata/jsurl/node20.js bundle/testdata/jsurl/node20.json
//
// and add a url by appending ["<url>", ""] to the file first.
const fs = require("fs");
const file = process.argv[2];
const vectors = JSON.parse(fs.readFileSync(file, "utf8"));
const lines = vectors.map(([url, , note]) => {
  let got = "ok";
  try {
    new URL(url);
  } catch (e) {
    got = "refused";
  }
  const v = note === undefined ? [url, got] : [url, got, note];
  return "  " + JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
});
fs.writeFileSync(file, "[\n" + lines.join(",\n") + "\n]\n");
