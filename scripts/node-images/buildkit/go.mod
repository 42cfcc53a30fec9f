module berth.local/buildkit

go 1.26.8

require github.com/moby/buildkit v0.34.2 // indirect
