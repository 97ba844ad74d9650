module rhumbline.dev/bench/callgraph-truth

go 1.22.0

require golang.org/x/tools v0.28.0

require (
	golang.org/x/mod v0.22.0 // indirect
	golang.org/x/sync v0.10.0 // indirect
)
