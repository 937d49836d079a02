package io.podfall.apiserver.registry;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.ServiceStatus;

/**
 * The service rules that matter to the endpoints controller and {@code kubectl get svc}: the defaults of
 * {@code pkg/apis/core/v1/defaults.go} SetDefaults_Service (type ClusterIP, sessionAffinity None, ports TCP with
 * targetPort = port) and {@code PrepareForCreate} of {@code pkg/registry/core/service/strategy.go} (status
 * cleared). No cluster IP is allocated: podfall routes no traffic, so a service keeps the clusterIP it was given.
 */
final class ServiceStrategy {
    private ServiceStrategy() {
    }

    static void prepareForCreate(Service service) {
        ServiceStatus status = new ServiceStatus();
        status.setLoadBalancer(new LoadBalancerStatus());
        service.setStatus(status);
        applyDefaults(service);
    }

    static void applyDefaults(Service service) {
        ServiceSpec spec = service.getSpec() == null ? new ServiceSpec() : service.getSpec();
        service.setSpec(spec);
        if (spec.getType() == null || spec.getType().isEmpty()) {
            spec.setType("ClusterIP");
        }
        if (spec.getSessionAffinity() == null || spec.getSessionAffinity().isEmpty()) {
            spec.setSessionAffinity("None");
        }
        for (ServicePort port : spec.getPorts()) {
            if (port.getProtocol() == null || port.getProtocol().isEmpty()) {
                port.setProtocol("TCP");
            }
            if (port.getTargetPort() == null && port.getPort() != null) {
                port.setTargetPort(new IntOrString(port.getPort()));
            }
        }
    }
}
