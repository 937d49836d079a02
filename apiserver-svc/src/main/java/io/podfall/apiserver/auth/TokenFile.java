package io.podfall.apiserver.auth;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Static bearer tokens, as kube-apiserver's {@code --token-auth-file} reads them
 * (staging/src/k8s.io/apiserver/pkg/authentication/token/tokenfile/tokenfile.go): a CSV line a token,
 * {@code token,user,uid[,"group1,group2"]}. A line with fewer than three columns makes the file invalid; a blank token
 * is skipped; a token given twice keeps its last line. Pure: the content is given, the file is read by the caller.
 */
public final class TokenFile {
    private final Map<String, UserInfo> users;

    private TokenFile(Map<String, UserInfo> users) {
        this.users = users;
    }

    /** @throws IllegalArgumentException naming the line that is not {@code token,user,uid[,groups]} */
    public static TokenFile parse(String content) {
        Map<String, UserInfo> users = new HashMap<>();
        CsvMapper csv = new CsvMapper()
                .enable(CsvParser.Feature.WRAP_AS_ARRAY)
                .enable(CsvParser.Feature.TRIM_SPACES)
                .enable(CsvParser.Feature.SKIP_EMPTY_LINES);
        try (MappingIterator<String[]> rows = csv.readerFor(String[].class).readValues(content)) {
            int line = 0;
            while (rows.hasNext()) {
                String[] row = rows.next();
                line++;
                if (row.length < 3) {
                    throw new IllegalArgumentException("token file line " + line
                            + " must have at least 3 columns (token, user name, user uid), found " + row.length);
                }
                if (row[0].isEmpty()) {
                    continue;
                }
                List<String> groups = new ArrayList<>();
                if (row.length > 3 && !row[3].isEmpty()) {
                    Arrays.stream(row[3].split(","))
                            .map(String::trim)
                            .filter(g -> !g.isEmpty())
                            .forEach(groups::add);
                }
                groups.add(UserInfo.AUTHENTICATED);
                users.put(row[0], new UserInfo(row[1], row[2], groups));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new TokenFile(Map.copyOf(users));
    }

    /** The user a bearer token stands for. */
    public Optional<UserInfo> authenticate(String token) {
        return Optional.ofNullable(users.get(token));
    }
}
