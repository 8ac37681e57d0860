import { parse } from "./parser.js";
// parse in a comment
class Parser {
  feed(data) { return parse(data, "parse"); }
}
const run = (x) => parse(x);
