//go:build !linux

package main

import "os"

// isTerminal is conservative off Linux: no colour.
func isTerminal(*os.File) bool { return false }
