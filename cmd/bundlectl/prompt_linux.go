package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// readSecret prompts on w and reads one line from the terminal in with
// echo turned off, restoring the terminal afterwards.
func readSecret(in *os.File, w io.Writer, prompt string, max int) (string, error) {
	fd := int(in.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", errors.New("stdin is not a terminal")
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return "", err
	}
	defer func() {
		unix.IoctlSetTermios(fd, unix.TCSETS, old)
		io.WriteString(w, "\n")
	}()
	io.WriteString(w, prompt)
	line, err := bufio.NewReaderSize(io.LimitReader(in, int64(max)+2), 4096).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), nil
}
