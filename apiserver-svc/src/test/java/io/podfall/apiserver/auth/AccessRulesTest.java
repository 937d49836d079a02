package io.podfall.apiserver.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The token file, the request's verb and the ABAC rules, as kube-apiserver reads and applies them. */
class AccessRulesTest {
    private static final TokenFile TOKENS = TokenFile.parse("""
            alice-token,alice,1001,"admins,devs"
            bob-token, bob, 1002
            ,nobody,1003
            """);
    private static final UserInfo ALICE = TOKENS.authenticate("alice-token").orElseThrow();
    private static final UserInfo BOB = TOKENS.authenticate("bob-token").orElseThrow();

    private static final AbacPolicy POLICY = AbacPolicy.parse("""
            # admins may do anything; everyone authenticated may read, and bob may change pods in team-b
            {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"admins","namespace":"*","resource":"*","apiGroup":"*","nonResourcePath":"*"}}
            {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"system:authenticated","readonly":true,"namespace":"*","resource":"*","apiGroup":"*"}}
            {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"*","readonly":true,"nonResourcePath":"/api*"}}
            {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"bob","namespace":"team-b","resource":"pods","apiGroup":""}}
            """);

    private static RequestAttributes request(
            UserInfo user, String method, String namespace, String resource, String name) {
        return RequestAttributes.resource(
                user,
                method,
                false,
                resource.equals("deployments") ? "apps" : "",
                resource,
                null,
                namespace,
                name,
                "/path");
    }

    @Test
    void tokensNameUsersWithTheirGroupsAndTheAuthenticatedGroup() {
        assertEquals(new UserInfo("alice", "1001", List.of("admins", "devs", UserInfo.AUTHENTICATED)), ALICE);
        assertEquals(List.of(UserInfo.AUTHENTICATED), BOB.groups());
        assertTrue(TOKENS.authenticate("").isEmpty(), "a blank token is skipped");
        assertTrue(TOKENS.authenticate("mallory-token").isEmpty());
        var e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("t1,carol\n"));
        assertEquals(
                "token file line 1 must have at least 3 columns (token, user name, user uid), found 2", e.getMessage());
    }

    @Test
    void theVerbComesFromTheMethodAndWhetherANameIsGiven() {
        assertEquals("list", request(BOB, "GET", "default", "pods", null).verb());
        assertEquals(
                "watch",
                RequestAttributes.resource(BOB, "GET", true, "", "pods", null, null, null, "/p")
                        .verb());
        assertEquals("get", request(BOB, "GET", "default", "pods", "web-1").verb());
        assertEquals("create", request(BOB, "POST", "default", "pods", null).verb());
        assertEquals("update", request(BOB, "PUT", "default", "pods", "web-1").verb());
        assertEquals("patch", request(BOB, "PATCH", "default", "pods", "web-1").verb());
        assertEquals(
                "delete", request(BOB, "DELETE", "default", "pods", "web-1").verb());
        assertEquals(
                "deletecollection",
                request(BOB, "DELETE", "default", "pods", null).verb());
    }

    @Test
    void aPolicyAllowsWhatItsSubjectVerbAndResourceMatch() {
        assertTrue(POLICY.authorizes(request(ALICE, "DELETE", "default", "deployments", "web")), "admins: anything");
        assertTrue(
                POLICY.authorizes(request(BOB, "GET", "default", "pods", "web-1")), "reading, by anyone authenticated");
        assertFalse(
                POLICY.authorizes(request(BOB, "DELETE", "default", "pods", "web-1")),
                "a readonly policy does not delete");
        assertTrue(POLICY.authorizes(request(BOB, "DELETE", "team-b", "pods", "web-1")), "bob's own policy");
        assertFalse(POLICY.authorizes(request(BOB, "DELETE", "team-b", "deployments", "web")), "only pods");
        assertFalse(
                POLICY.authorizes(request(BOB, "DELETE", "", "nodes", "node-1")),
                "a namespace policy is not cluster-wide");
    }

    @Test
    void aRequestThatNamesNoResourceIsMatchedByItsPath() {
        assertTrue(
                POLICY.authorizes(RequestAttributes.nonResource(BOB, "GET", "/apis/apps/v1")),
                "a trailing * is a prefix");
        assertFalse(POLICY.authorizes(RequestAttributes.nonResource(BOB, "GET", "/version")));
        assertTrue(POLICY.authorizes(RequestAttributes.nonResource(ALICE, "GET", "/version")));
        assertFalse(POLICY.authorizes(RequestAttributes.nonResource(null, "GET", "/api")), "no user, no policy");
    }

    @Test
    void aRefusalSaysWhoCannotDoWhatWhereInKubeApiserversWords() {
        assertEquals(
                "User \"bob\" cannot delete resource \"pods\" in API group \"\" in the namespace \"default\"",
                request(BOB, "DELETE", "default", "pods", "web-1").forbiddenMessage());
        assertEquals(
                "User \"bob\" cannot create resource \"pods/eviction\" in API group \"\" in the namespace \"default\"",
                RequestAttributes.resource(BOB, "POST", false, "", "pods", "eviction", "default", "web-1", "/p")
                        .forbiddenMessage());
        assertEquals(
                "User \"bob\" cannot delete resource \"nodes\" in API group \"\" at the cluster scope",
                request(BOB, "DELETE", "", "nodes", "node-1").forbiddenMessage());
        assertEquals(
                "User \"bob\" cannot get path \"/version\"",
                RequestAttributes.nonResource(BOB, "GET", "/version").forbiddenMessage());
        var e = assertThrows(IllegalArgumentException.class, () -> AbacPolicy.parse("{\"kind\":\"Policy\"}"));
        assertTrue(e.getMessage().startsWith("policy file line 1 is not a Policy"), e.getMessage());
    }
}
