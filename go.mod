module github.com/bundlectl/bundlectl

go 1.26.0

require (
	github.com/gofrs/flock v0.13.2
	github.com/google/renameio/v2 v2.0.2
	github.com/rogpeppe/go-internal v1.16.0
	github.com/spf13/cobra v1.10.2
	github.com/zeebo/blake3 v0.2.4
	golang.org/x/sys v0.50.0
	golang.org/x/text v0.44.0
)

require github.com/google/jsonschema-go v0.4.3

require (
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/cpuid/v2 v2.0.12
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/spf13/pflag v1.0.9 // indirect
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/tools v0.52.0 // indirect
)

replace github.com/klauspost/cpuid/v2 => ./internal/cpuid
