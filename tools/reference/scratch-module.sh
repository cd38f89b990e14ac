# Sourced by the tools that build from k8s.io/kubernetes: makes the current directory a scratch
# Go module requiring k8s.io/kubernetes v$VERSION, with every k8s.io/* staging module its go.mod
# points at a local folder replaced by that module's published release (v0.<minor>.<patch>).
# k8s.io/kubernetes cannot be required otherwise (../shared/notes/reference-server.md).
[ -f go.mod ] || go mod init scratch >/dev/null 2>&1
go mod edit -require="k8s.io/kubernetes@v$VERSION"
kubernetes_dir=$(go mod download -json "k8s.io/kubernetes@v$VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
for module in $(grep -oE 'k8s.io/[a-z0-9-]+ => ./staging' "$kubernetes_dir/go.mod" | awk '{print $1}'); do
  go mod edit -replace="$module=$module@v0.${VERSION#1.}"
done

# Makes `go mod tidy` pin every module the given packages need: they become the imports of a
# file only the `tools` build tag compiles.
require_packages() {
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for package in "$@"; do printf '\t_ "%s"\n' "$package"; done
    printf ')\n'
  } > tools.go
  go mod tidy >/dev/null
}

# -ldflags that stamp the release into each given version package, as the reference's own build
# stamps it (what `--version` prints, and client-go's User-Agent).
version_ldflags() {
  local minor flags=""
  minor=$(echo "$VERSION" | cut -d. -f2)
  for package in "$@"; do
    flags="$flags -X $package.gitVersion=v$VERSION -X $package.gitMajor=1 -X $package.gitMinor=$minor"
  done
  echo "$flags"
}
