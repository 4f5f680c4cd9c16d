package review

import "golang.org/x/sys/unix"

// mapFlags maps a file to hash; Darwin has no MAP_POPULATE.
const mapFlags = unix.MAP_SHARED
