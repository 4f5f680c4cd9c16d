package gemini

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal, as Node's isatty (tcgetattr)
// tells it.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
