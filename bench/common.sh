# Sourced by the bench scripts.

# bench_input DIR: the path of the xz workload's input in DIR, made on first
# use: half random (base64), half repetitive text, so xz works hard on both.
bench_input() {
  local input="$1/input.bin"
  if [ ! -s "$input" ]; then
    { head -c 4500000 /dev/urandom | base64; yes "the quick brown fox jumps over the lazy dog" | head -c 6000000 || true; } > "$input"
  fi
  echo "$input"
}
