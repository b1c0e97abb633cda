# Sourced by the crates' fuzz/smoke.sh and scripts/fuzz.sh: sets `fuzz`, the command that builds
# and runs one target (`"${fuzz[@]}" TARGET CORPUS... -- FLAGS`): scripts/libfuzzer-run.sh, the
# cargo-fuzz build flags given to cargo directly (no cargo-fuzz install; one shared target
# folder for every fuzz workspace). Nightly adds AddressSanitizer; on stable the sanitizer is
# off and libFuzzer's coverage guidance still finds every panic.
fuzz=("$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/libfuzzer-run.sh")
