package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.DeleteOptions;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.podfall.model.core.Effects;
import io.podfall.model.event.EventTypes;
import io.podfall.model.k8s.MetaTimes;
import io.podfall.model.k8s.ResourceType;

/**
 * The delete of a namespace, which terminates its own way before the generic {@link Store} removes it: upstream's
 * {@code REST.Delete} of {@code pkg/registry/core/namespace/storage/storage.go}.
 */
final class NamespaceRest {
    private NamespaceRest() {}

    /**
     * The first delete marks the namespace {@code Terminating} ({@link NamespaceStrategy#markTerminating}); later ones
     * change nothing while {@code spec.finalizers} is not empty (the namespace controller is still emptying it), and
     * once it is, go the generic way (the namespace leaves unless {@code metadata.finalizers} hold it).
     */
    static void delete(RegistryState state, Namespace current, DeleteOptions options, Effects.Builder out) {
        ObjectMeta meta = current.getMetadata();
        if (options.getPreconditions() != null) {
            Storage.checkUid(
                    ResourceType.NAMESPACES, current, options.getPreconditions().getUid());
            String rv = options.getPreconditions().getResourceVersion();
            if (rv != null && !rv.equals(meta.getResourceVersion())) {
                throw StatusError.conflict(
                        ResourceType.NAMESPACES.plural(),
                        meta.getName(),
                        "Precondition failed: ResourceVersion in precondition: " + rv
                                + ", ResourceVersion in object meta: " + meta.getResourceVersion());
            }
        }
        if (meta.getDeletionTimestamp() == null) {
            Namespace next = state.copy(ResourceType.NAMESPACES, current);
            NamespaceStrategy.markTerminating(next, options, MetaTimes.format(out.causeTime()));
            Storage.write(state, out, EventTypes.OBJECT_MARKED_TERMINATING, ResourceType.NAMESPACES, next);
        } else if (NamespaceStrategy.isFinalized(current)) {
            Store.deleteObject(state, ResourceType.NAMESPACES, current, options, out);
        }
    }
}
