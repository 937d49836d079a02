/**
 * What a node's kube-proxy did: the rules it programmed for a Service, so the lag between an endpoint's change and each
 * node's rules is on the log.
 */
package io.podfall.model.proxy;
