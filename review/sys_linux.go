package review

import "golang.org/x/sys/unix"

// mapFlags maps a file to hash with its pages populated up front.
const mapFlags = unix.MAP_SHARED | unix.MAP_POPULATE
