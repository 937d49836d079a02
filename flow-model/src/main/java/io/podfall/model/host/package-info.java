/**
 * What happens to a node's machine, outside any Kubernetes component: it stops (the kubelet on it is down or cut off
 * from the API server) and starts again. Operator input on the log, appended by {@code podfall node stop|start}, so a
 * replay stops and starts the node at the same moments.
 */
package io.podfall.model.host;
