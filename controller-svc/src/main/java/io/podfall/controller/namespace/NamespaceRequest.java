package io.podfall.controller.namespace;

import io.podfall.model.core.TimerKey;

/**
 * What the namespace controller asks of the API server for a terminating namespace; while one is in flight it is not
 * asked again, and once refused it is the key of the timer that retries it.
 */
sealed interface NamespaceRequest extends TimerKey {

    String namespace();

    /** deleteCollection of one resource of the namespace. */
    record DeleteCollection(String namespace, String resource) implements NamespaceRequest {
        @Override
        public String id() {
            return "namespace/" + namespace + "/" + resource;
        }
    }

    /** finalizeNamespace: the namespace's content is gone. */
    record Finalize(String namespace) implements NamespaceRequest {
        @Override
        public String id() {
            return "namespace/" + namespace;
        }
    }
}
