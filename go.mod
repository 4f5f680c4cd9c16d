module github.com/bundlectl/bundlectl

go 1.26.0

require (
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/zeebo/blake3 v0.2.4
	golang.org/x/sys v0.50.0
	golang.org/x/text v0.44.0
)

require github.com/klauspost/cpuid/v2 v2.0.12 // indirect
