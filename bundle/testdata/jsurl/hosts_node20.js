// Writes again the second field of each vector in hosts_node20.json: the
// hostname node's URL (the WHATWG URL parser) reads in the url of the
// first, or "refused". Run it with node 20:
//
//	node bundle/testdata/jsurl/hosts_node20.js bundle/testdata/jsurl/hosts_node20.json
//
// and add a url by appending ["<url>", ""] to the file first.
const fs = require("fs");
const file = process.argv[2];
const vectors = JSON.parse(fs.readFileSync(file, "utf8"));
const lines = vectors.map(([url]) => {
  let got;
  try {
    got = new URL(url).hostname;
  } catch (e) {
    got = "refused";
  }
  return "  " + JSON.stringify([url, got]).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
});
fs.writeFileSync(file, "[\n" + lines.join(",\n") + "\n]\n");
