//go:build !linux

package main

import (
	"errors"
	"io"
	"os"
)

// readSecret needs a terminal whose echo it can turn off; off Linux, use
// --stdin.
func readSecret(*os.File, io.Writer, string, int, bool) (string, error) {
	return "", errors.New("no prompt without echo on this system")
}
