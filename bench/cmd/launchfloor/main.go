//go:build linux

// Command launchfloor is the floor of any Go program that does what a
// one-shot `bundlectl run` must do before and around the tool, and nothing
// else: decode a JSON file (the state), lstat every entry of a tree once
// (the snapshot's fingerprint check), then start the tool with the same
// containment (a PID namespace as root, a user and PID namespace
// otherwise; its own session; killed if the launcher dies), pass stdin
// and stdout through and wait. bench/run.sh times it beside the tool
// run directly and `bundlectl run`, so the ratio the target asks for can be
// read against what a minimal launcher costs on the same machine.
//
//	launchfloor STATE.json TREE COMMAND [ARG...]
package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: launchfloor STATE.json TREE COMMAND [ARG...]")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	var state map[string]any
	if err := json.Unmarshal(data, &state); err != nil {
		fail(err)
	}
	err = filepath.WalkDir(os.Args[2], func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		_, err = os.Lstat(p)
		return err
	})
	if err != nil {
		fail(err)
	}
	cmd := exec.Command(os.Args[3], os.Args[4:]...)
	cmd.Dir = os.Args[2]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: syscall.CLONE_NEWPID}
	if os.Geteuid() != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	}
	if err := cmd.Run(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "launchfloor:", err)
	os.Exit(1)
}
