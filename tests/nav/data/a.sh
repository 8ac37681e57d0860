#!/bin/sh
# parse in a comment
parse() {
  echo "parse $1"
}
parse "$HOME"
