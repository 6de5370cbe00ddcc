# Convenience targets; the scripts are the source of truth (CI runs scripts/test.sh).
.PHONY: test generate build demo

test:
	./scripts/test.sh

generate:
	./scripts/generate.sh

build:
	go build -o bin/fleetgate ./cmd/fleetgate

demo:
	go run ./cmd/fleetgate demo
