/**
 * The proxy's {@code /metrics} endpoint for Prometheus ({@code metrics_listen}); see docs/metrics.md.
 */
package io.pgmux.proxy.metrics;
