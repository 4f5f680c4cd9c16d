#!/bin/sh
# fixture guard: blocks nothing
cat >/dev/null
exit 0
