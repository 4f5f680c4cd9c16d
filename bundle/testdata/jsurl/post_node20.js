// Writes post_node20.json again: for each url, the href node's URL (the
// WHATWG URL parser) reads in it, its fragment cut (no request carries
// it), or "refused". The file opens with one url for each of the 256
// code points U+0000–U+00FF, written into a path and a query, which this
// script writes itself; the urls after them are kept. Run it with node 20:
//
//	node bundle/testdata/jsurl/post_node20.js bundle/testdata/jsurl/post_node20.json
//
// and add a url by appending ["<url>", ""] to the file first.
const fs = require("fs");
const file = process.argv[2];
let kept = [];
try {
  kept = JSON.parse(fs.readFileSync(file, "utf8")).map(([url]) => url);
} catch (e) {}
const bytes = [];
for (let i = 0; i < 256; i++) {
  const c = String.fromCharCode(i);
  bytes.push("https://h/a" + c + "b/" + c + "?q" + c + "r");
}
const urls = bytes.concat(kept.filter((u) => !bytes.includes(u)));
const lines = urls.map((url) => {
  let got;
  try {
    got = new URL(url).href.split("#")[0];
  } catch (e) {
    got = "refused";
  }
  return "  " + JSON.stringify([url, got]).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
});
fs.writeFileSync(file, "[\n" + lines.join(",\n") + "\n]\n");
