package io.podfall.cli.analysis;

import static io.podfall.cli.analysis.PodLog.data;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.podfall.model.event.Event;
import io.podfall.model.event.EventTypes;
import java.util.List;
import org.junit.jupiter.api.Test;

class SequenceDiagramTest {

    @Test
    void oneArrowAnEventFromSenderToWhoActsOnIt() {
        PodLog p = new PodLog("web-1").created(0);
        p.delete(1_000, 5);
        p.markedTerminating(1_017, 5);
        p.stopRequested(1_051, 5);
        p.signalled(1_076, "SIGTERM");
        p.exited(2_076, 143);
        p.ipReleased(2_112);
        p.then(2_120, "/kubelet/node-1", EventTypes.NODE_UNPUBLISH_VOLUME_REQUESTED, data("volumeId", "default/data"));
        p.then(2_130, "/csi/node-1", EventTypes.VOLUME_UNPUBLISHED, data("volumeId", "default/data"));
        p.then(2_150, "/kubelet/node-1", EventTypes.POD_TERMINATED, data("gracePeriodSeconds", 5));
        p.removed(2_201);
        assertEquals("""
                sequenceDiagram
                    title apiserver.DeletionRequested namespaces/default/pods/web-1
                    participant User as User/kubectl
                    participant API as API server
                    participant Etcd as etcd (the log)
                    participant CM as Controller manager
                    participant Kubelet as Kubelet
                    participant Runtime as Runtime (CRI)
                    participant CNI as CNI
                    participant CSI as CSI
                    User->>API: +0 ms DeletionRequested grace=5s
                    API-->>Etcd: +17 ms ObjectMarkedTerminating deletionGracePeriodSeconds=5 deletionTimestamp=2026-11-29T10:00:06.017Z phase=Running
                    Kubelet->>Runtime: +51 ms StopContainerRequested container=app timeout=5s
                    Runtime-->>Kubelet: +76 ms ContainerSignalled container=app signal=SIGTERM
                    Runtime-->>Kubelet: +1076 ms ContainerExited container=app exitCode=143 reason=Error
                    CNI-->>Kubelet: +1112 ms PodIPReleased ip=10.244.1.2
                    Kubelet->>CSI: +1120 ms NodeUnpublishVolumeRequested volume=default/data
                    CSI-->>Kubelet: +1130 ms VolumeUnpublished volume=default/data
                    Kubelet-->>Kubelet: +1150 ms PodTerminated grace=5s
                    API-->>Etcd: +1201 ms ObjectRemoved phase=Failed
                """, SequenceDiagram.of(p.events, "del-web-1"));
    }

    @Test
    void aRejectionGoesBackToWhoAskedAndTextIsEscaped() {
        PodLog p = new PodLog("web-1");
        p.delete(0, 5);
        p.then(3, "/apiserver", EventTypes.REQUEST_REJECTED, data("status", data("reason", "NotFound; #1")));
        assertTrue(SequenceDiagram.of(p.events, "del-web-1")
                .endsWith("    API-->>User: +3 ms RequestRejected status=NotFound, #35;1\n"));
    }

    @Test
    void theHtmlPageInlinesTheRenderer() {
        String page = MermaidPage.html("flow d1", "sequenceDiagram\n    User->>API: +0 ms x\n");
        assertTrue(page.contains("<pre class=\"mermaid\">\nsequenceDiagram\n    User-&gt;&gt;API: +0 ms x\n</pre>"));
        assertTrue(page.contains("mermaid.initialize("));
        assertTrue(page.length() > 1_000_000, "the renderer is inlined");
        assertTrue(!page.contains("src=\"http") && !page.contains("<script src"), "nothing is fetched");
    }

    /**
     * A foreground cascade reads per object, in causal order: the Deployment and ReplicaSet marked, each pod's whole
     * deletion (its Endpoints update with it) though the two overlap in time, then the ReplicaSet and the Deployment,
     * continued, once what held them is gone.
     */
    @Test
    void aCascadeGroupsTheArrowsPerObjectInCausalOrder() {
        Cascade c = new Cascade();
        List<SequenceDiagram.Block> blocks = SequenceDiagram.blocks(c.events);
        assertEquals(
                List.of(
                        Cascade.DEPLOYMENT,
                        Cascade.REPLICA_SET,
                        c.first.subject,
                        c.second.subject,
                        Cascade.REPLICA_SET,
                        Cascade.DEPLOYMENT),
                blocks.stream().map(SequenceDiagram.Block::object).toList());
        assertEquals(
                List.of(2, 2, c.first.events.size(), c.second.events.size(), 2, 2),
                blocks.stream().map(b -> b.events().size()).toList());
        assertEquals(
                c.first.events.stream()
                        .sorted(java.util.Comparator.comparing(Event::time))
                        .toList(),
                blocks.get(2).events(),
                "the first pod's steps, in their order, with its Endpoints update");
        assertEquals(
                c.events.size(),
                blocks.stream().mapToInt(b -> b.events().size()).sum());

        String mermaid = SequenceDiagram.of(c.events, "del-web");
        assertTrue(mermaid.contains("""
                    participant CSI as CSI
                    rect rgb(232, 242, 255)
                    Note over User,CSI: namespaces/default/deployments/web
                    User->>API: +0 ms DeletionRequested
                    API-->>Etcd: +10 ms ObjectMarkedTerminating
                    end
                    rect rgb(234, 250, 236)
                    Note over User,CSI: namespaces/default/replicasets/web-1a2b
                    CM->>API: +20 ms DeletionRequested
                    API-->>Etcd: +30 ms ObjectMarkedTerminating
                    end
                    rect rgb(255, 245, 228)
                    Note over User,CSI: namespaces/default/pods/web-1a2b-a
                    CM->>API: +40 ms DeletionRequested
                """), mermaid);
        assertTrue(mermaid.endsWith("""
                    rect rgb(232, 242, 255)
                    Note over User,CSI: namespaces/default/deployments/web (continued)
                    CM->>API: +510 ms PatchRequested
                    API-->>Etcd: +515 ms ObjectRemoved
                    end
                """), mermaid);
        assertTrue(mermaid.contains("""
                    CM->>API: +60 ms PatchRequested on endpoints/web
                    API-->>Etcd: +70 ms ObjectUpdated on endpoints/web
                """), "a step about another object in a pod's block names it: " + mermaid);
        assertEquals(
                c.events.size(), mermaid.lines().filter(l -> l.contains(">>")).count(), "one arrow an event");
    }
}
