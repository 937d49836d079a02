package io.podfall.runtime.cri;

import static io.podfall.model.SharedStrings.shared;

import io.podfall.model.SharedValues;
import io.podfall.model.event.Subjects;
import io.podfall.model.runtime.RunPodSandbox.ContainerSpec;
import io.podfall.model.runtime.Sandbox;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A pod sandbox on a node: READY from RunPodSandbox (with its IP) until StopPodSandbox makes it NOTREADY (IP released),
 * then forgotten at RemovePodSandbox. CRI's own names for the two states. Changed only by {@link ContainerRuntime}.
 */
public final class PodSandbox {
    public enum State {
        READY,
        NOTREADY
    }

    private final String node;
    private final String podUid;
    /** The CRI sandbox id, {@code Ids.derived("sandbox", podUid)}. */
    private final String id;
    /** The pod's namespace and name, from RunPodSandbox: every fact about the pod carries its subject. */
    private final String namespace;

    private final String name;
    /** The pod IP CNI gave the sandbox; back in the node's pool once the sandbox is NOTREADY. */
    private final String ip;
    /**
     * The containers the kubelet may start here, in spec order: init containers first, marked when they run to
     * completion.
     */
    private final List<ContainerSpec> specs;

    private final ProcessBehaviour behaviour;
    /** Every container started so far, in start order: a restarted container's earlier attempts stay until removal. */
    private final List<Container> containers;

    private State state = State.READY;

    PodSandbox(
            String node,
            String podUid,
            String id,
            String namespace,
            String name,
            String ip,
            List<ContainerSpec> specs,
            ProcessBehaviour behaviour) {
        this.node = shared(node);
        this.podUid = podUid;
        this.id = id;
        this.namespace = shared(namespace);
        this.name = name;
        this.ip = ip;
        // the sandboxes of a ReplicaSet's pods ask for the same containers and behave alike: one of each for all
        this.specs = SharedValues.shared(specs.stream()
                .map(s -> new ContainerSpec(
                        shared(s.name()), shared(s.image()), s.runsToCompletion() ? Boolean.TRUE : null))
                .toList());
        this.behaviour = SharedValues.shared(behaviour);
        this.containers = new ArrayList<>(this.specs.size());
    }

    public String id() {
        return id;
    }

    public String podUid() {
        return podUid;
    }

    public String ip() {
        return ip;
    }

    public State state() {
        return state;
    }

    public boolean isReady() {
        return state == State.READY;
    }

    public ProcessBehaviour behaviour() {
        return behaviour;
    }

    public Collection<Container> containers() {
        return Collections.unmodifiableList(containers);
    }

    /** The latest attempt of the container of that name. */
    public Optional<Container> container(String containerName) {
        for (int i = containers.size() - 1; i >= 0; i--) {
            if (containers.get(i).name().equals(containerName)) {
                return Optional.of(containers.get(i));
            }
        }
        return Optional.empty();
    }

    /** The pod's subject on the log ({@code namespaces/<ns>/pods/<name>}). */
    public String subject() {
        return Subjects.of(namespace, "pods", name);
    }

    Sandbox sandbox() {
        return new Sandbox(node, podUid, id, ip);
    }

    Optional<ContainerSpec> spec(String containerName) {
        return specs.stream().filter(s -> containerName.equals(s.name())).findFirst();
    }

    void add(Container container) {
        containers.add(container);
    }

    void stopped() {
        state = State.NOTREADY;
    }
}
