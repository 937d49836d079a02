package io.podfall.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.podfall.model.k8s.ResourceType;
import java.util.Optional;

/** Controller references ({@code metav1.GetControllerOf}, {@code metav1.NewControllerRef}). */
public final class ControllerRefs {
    private ControllerRefs() {}

    /** The owner reference with {@code controller: true}, if the object has one. */
    public static Optional<OwnerReference> controllerOf(HasMetadata object) {
        return object.getMetadata().getOwnerReferences() == null
                ? Optional.empty()
                : object.getMetadata().getOwnerReferences().stream()
                        .filter(r -> Boolean.TRUE.equals(r.getController()))
                        .findFirst();
    }

    /** The uid of the object's controller of the given kind, if it has one. */
    public static Optional<String> controllerUid(HasMetadata object, ResourceType kind) {
        return controllerOf(object).filter(r -> kind.kind().equals(r.getKind())).map(OwnerReference::getUid);
    }

    /**
     * The reference a controller puts on what it creates: {@code controller} and {@code blockOwnerDeletion} true, so a
     * foreground deletion of the owner waits for it.
     */
    public static OwnerReference newControllerRef(HasMetadata owner, ResourceType kind) {
        return new OwnerReferenceBuilder()
                .withApiVersion(kind.apiVersion())
                .withKind(kind.kind())
                .withName(owner.getMetadata().getName())
                .withUid(owner.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }
}
