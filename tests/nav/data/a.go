package main

import "strings"

// Parser parses; parse in a comment.
type Parser struct{ n int }

func (p *Parser) Feed(s string) string { return strings.ToUpper(parse(s)) }

func parse(s string) string { return "parse" + s }
