# The README's commands. `make run` starts a server on the embedded store: it needs only the npm
# packages (which bring Node 24) and rebuilds the server only when its sources changed. `make test`
# also installs what the tests use (Debian's etcd and haproxy, helm) and runs every test.
.PHONY: run test bench deps build schemas conformance

# What the server is built from: a change to any of these rebuilds it before `make run`.
SERVER_INPUTS := $(shell find api server storage tools -name '*.ts' -o -name 'definitions.json') tsconfig.json tsconfig.server.json
DESCRIPTIONS := server/schema/generated/descriptions.json

node_modules/.package-lock.json: package.json package-lock.json
	./tools/deps-npm.sh

dist/.server-built: node_modules/.package-lock.json $(SERVER_INPUTS)
	@echo "building the server" >&2
	@npx tsc -p tsconfig.server.json
	@npm run --silent bundle
	@touch $@

# Field descriptions for `kubectl explain`, taken from the API's Go modules at install time and
# never committed. Without them (offline, say) the server runs and explain shows types only.
# Order-only on the build: fetched once, and again only when the pinned module versions or the
# tool that reads them change.
$(DESCRIPTIONS): tools/schemagen/go.mod $(wildcard tools/descriptions/*.ts) | dist/.server-built
	@npx node dist/tools/descriptions/fetch-descriptions.js $@ || true

run: dist/.server-built $(DESCRIPTIONS)
	@bin/capstan $(ARGS)

deps:
	./tools/deps.sh

build: deps
	npm run --silent build

test: deps
	./tools/run-tests.sh

bench: deps
	npm run --silent bench

schemas:
	cd tools/schemagen && PATH="$$PATH:/usr/local/go/bin" go run . -out ../../server/schema/generated

# The reference suite's API-only specs (tools/conformance/api-only.txt: sig-api-machinery,
# sig-auth, and the API ones of sig-network and sig-cli) against a fresh capstan
# with the reference controller manager, scheduler and simulated nodes
# (tools/conformance/conformance.ts), in a network namespace of its own where pods get addresses
# the reference proxies to (as root; tools/conformance/pod-network.sh). The first run builds the
# suite's and their binaries into ~/.cache/kube-ref (about 15 minutes on 2 cores);
# `ARGS='--focus Watchers'` runs a part.
conformance: node_modules/.package-lock.json
	./tools/conformance/build-e2e-test.sh
	./tools/reference/build-controllers.sh
	npm run --silent build
	./tools/conformance/pod-network.sh npx node dist/tools/conformance/conformance.js $(ARGS)
