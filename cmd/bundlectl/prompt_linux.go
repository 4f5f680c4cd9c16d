package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/bundlectl/bundlectl/harness"
	"golang.org/x/sys/unix"
)

// readSecret prompts on w and reads one line from the terminal in with
// echo turned off, restoring the terminal afterwards — also when a signal
// (Ctrl-C, a hangup, a kill) ends the process at the prompt, which then
// dies of that signal with echo back on, or exits 128+N where dieOf does
// not end it (SIGQUIT, Ctrl-\, among them); a signal bundlectl was started
// ignoring stays ignored, and the prompt goes on. A line as long as the
// terminal can hold is refused: its end may have been cut. With whole, it reads
// every line up to the end of input (Ctrl-D), as --stdin reads a pipe: a
// value pasted in several lines (a PEM key) is then stored whole, and no
// line of it is left in the terminal for the shell to read and echo.
func readSecret(in *os.File, w io.Writer, prompt string, max int, whole bool) (string, error) {
	fd := int(in.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", errors.New("stdin is not a terminal")
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	restore := sync.OnceFunc(func() {
		unix.IoctlSetTermios(fd, unix.TCSETS, old)
		io.WriteString(w, "\n")
	})
	sigs := make(chan os.Signal, 1)
	harness.NotifyHeeded(sigs, unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			restore()
			// Not by SIGQUIT: the runtime would print a crash report (and
			// with GOTRACEBACK=crash dump core, the value typed so far in
			// it).
			dieOf(s.(syscall.Signal))
			os.Exit(128 + int(s.(syscall.Signal)))
		case <-done:
		}
	}()
	defer func() {
		signal.Stop(sigs)
		close(done)
		restore()
	}()
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return "", err
	}
	io.WriteString(w, prompt)
	r := bufio.NewReaderSize(io.LimitReader(in, int64(max)+2), 4096)
	var value strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil && !(errors.Is(err, io.EOF) && (line != "" || whole && value.Len() > 0)) {
			return "", err
		}
		if len(strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")) >= maxTerminalLine {
			return "", errLineCut
		}
		value.WriteString(line)
		if !whole || err != nil {
			break
		}
	}
	return strings.TrimSuffix(strings.TrimSuffix(value.String(), "\n"), "\r"), nil
}
