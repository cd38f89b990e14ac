# The README's commands: `make run` starts a server on the embedded store; `make test` installs
# what the tests need and runs them all.
.PHONY: run test bench deps build schemas

deps:
	./tools/deps.sh

build: deps
	npm run --silent build

run: deps
	npm start -- $(ARGS)

test: deps
	./tools/run-tests.sh

bench: deps
	npm run --silent bench

schemas:
	cd tools/schemagen && PATH="$$PATH:/usr/local/go/bin" go run . -out ../../server/schema/generated
