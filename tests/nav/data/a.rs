use std::fmt::Display;

struct Parser { n: u32 }

impl Parser {
    fn feed(&self, data: &str) -> String { parse(data) } // parse
}

fn parse(s: &str) -> String { format!("parse {}", s) }
