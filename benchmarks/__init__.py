"""Speed and memory benchmarks; results go to docs/performance.md."""
