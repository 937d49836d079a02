# One image per podfall service, all from this file: the compose file passes SERVICE (apiserver-svc, …).
# The build stage compiles the whole reactor once; Docker reuses that stage for the four images, since only
# the last stage depends on SERVICE. BUILD_IMAGE needs a JDK 17, JRE_IMAGE a JRE 17 and curl (health checks).
ARG BUILD_IMAGE=eclipse-temurin:17-jdk
ARG JRE_IMAGE=eclipse-temurin:17-jre

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY . .
# No AppCDS archive: the JVM that would map it (JRE_IMAGE's) is not the build's, and only the JVM that wrote an
# archive can map it.
RUN ./mvnw -B -q package -DskipTests -Dquarkus.package.jar.appcds.enabled=false \
    -pl apiserver-svc,controller-svc,kubelet-svc,runtime-svc -am

FROM ${JRE_IMAGE}
ARG SERVICE
COPY --from=build /src/${SERVICE}/target/quarkus-app/ /deployments/
# Native memory as podfall up runs it (flow-broker's NativeMemory): two malloc arenas, the native heap trimmed.
ENV QUARKUS_HTTP_PORT=8080 \
    MALLOC_ARENA_MAX=2 \
    JAVA_OPTS="-Xmx256m -XX:+UseSerialGC -XX:TrimNativeHeapInterval=5000"
EXPOSE 8080
# exec: the JVM is PID 1's only child under `init: true` and gets SIGTERM directly, so Quarkus stops gracefully.
CMD ["sh", "-c", "exec java $JAVA_OPTS -jar /deployments/quarkus-run.jar"]
