# Sourced by the crates' fuzz/smoke.sh: checks for cargo-fuzz and sets `fuzz`, the command
# that runs one target. Nightly gives AddressSanitizer; without it, stable with the sanitizer
# off still fuzzes with libFuzzer's coverage guidance and catches every panic.
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    echo "smoke.sh: cargo-fuzz required: cargo install cargo-fuzz" >&2
    exit 2
fi
if rustup run nightly rustc --version >/dev/null 2>&1; then
    fuzz=(cargo +nightly fuzz run)
else
    echo "smoke.sh: no nightly toolchain; fuzzing on stable without a sanitizer" >&2
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz run --sanitizer none)
fi
