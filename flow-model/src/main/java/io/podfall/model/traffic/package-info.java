/**
 * The clients' requests to a Service under declared load, counted per node, Service and window: how many succeeded and
 * how many failed, and why, so the requests a deletion breaks are a figure on the log.
 */
package io.podfall.model.traffic;
