package io.podfall.runtime.csi;

import io.podfall.model.csi.StagedVolume;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the CSI node plugins of every node hold: per node, the volumes staged there and the volumes published into its
 * pods. A fold over the CSI requests on the log; changed only by {@link CsiNodePlugin}.
 */
public final class CsiState {
    /** Per node, the staged volumes by {@code <driver>^<volumeId>}. */
    final Map<String, Map<String, StagedVolume>> staged = new HashMap<>();
    /** Per node, the published volumes by {@code <podUid>/<volumeName>}, from NodePublishVolume until unpublished. */
    final Map<String, Map<String, Publication>> published = new HashMap<>();
    /** The ids of the requests served: a request delivered again is recognised and answered no second time. */
    final Set<String> served = new HashSet<>();

    public boolean isStaged(String node, String driver, String volumeId) {
        return staged.getOrDefault(node, Map.of()).containsKey(volumeKey(driver, volumeId));
    }

    public boolean isPublished(String node, String podUid, String volumeName) {
        return publication(node, podUid, volumeName).isPresent();
    }

    Optional<Publication> publication(String node, String podUid, String volumeName) {
        return Optional.ofNullable(published.getOrDefault(node, Map.of()).get(publicationKey(podUid, volumeName)));
    }

    Map<String, StagedVolume> stagedOn(String node) {
        return staged.computeIfAbsent(node, n -> new LinkedHashMap<>());
    }

    Map<String, Publication> publishedOn(String node) {
        return published.computeIfAbsent(node, n -> new LinkedHashMap<>());
    }

    static String volumeKey(String driver, String volumeId) {
        return driver + "^" + volumeId;
    }

    static String publicationKey(String podUid, String volumeName) {
        return podUid + "/" + volumeName;
    }
}
