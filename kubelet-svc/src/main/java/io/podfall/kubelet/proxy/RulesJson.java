package io.podfall.kubelet.proxy;

import io.podfall.model.Json;
import io.podfall.model.proxy.ServiceRules;
import io.podfall.model.proxy.ServiceRules.RuleEndpoint;
import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The data of {@code proxy.RulesSynced}, written once per list: every node whose rules for a Service are the same
 * shared list gets the same endpoints' JSON, only its node name put before it. A Service of 10,000 endpoints on 100
 * nodes is one serialisation a sync, not a hundred. The bytes are those {@code Json.bytes} writes of the
 * {@link ServiceRules} record.
 */
final class RulesJson {
    private record Written(List<RuleEndpoint> endpoints, byte[] json) {}

    /** The last list written of each Service, kept while it is the one in effect. */
    private final Map<ServiceName, Written> last = new HashMap<>();

    /** The event data of {@code node}'s rules for {@code service}. */
    byte[] of(String node, ServiceName service, List<RuleEndpoint> endpoints) {
        Written written = last.get(service);
        if (written == null || written.endpoints() != endpoints) {
            written = new Written(endpoints, Json.bytes(endpoints));
            last.put(service, written);
        }
        byte[] empty = Json.bytes(new ServiceRules(node, service.namespace(), service.name(), List.of()));
        // {"node":…,"service":…,"endpoints":[]} → the same with the list's JSON in place of [].
        int at = empty.length - "[]}".length();
        ByteArrayOutputStream out = new ByteArrayOutputStream(at + written.json().length + 1);
        out.write(empty, 0, at);
        out.writeBytes(written.json());
        out.write('}');
        return out.toByteArray();
    }
}
