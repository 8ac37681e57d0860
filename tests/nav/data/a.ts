import { parse } from "./parser";
interface Options { strict: boolean }
type Parse = (s: string) => Options;
export class Parser {
  feed(data: string): Options { return parse(data); }  // parse
}
