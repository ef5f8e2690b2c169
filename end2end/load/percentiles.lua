-- wrk's summary as one line: requests, errors, and the latency percentiles in milliseconds.
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.status + summary.errors.timeout
  io.write(string.format("requests=%d errors=%d p50=%.1fms p95=%.1fms p99=%.1fms max=%.1fms rps=%.0f\n",
    summary.requests, errors, latency:percentile(50) / 1000, latency:percentile(95) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000, summary.requests / (summary.duration / 1e6)))
end
