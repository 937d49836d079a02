package io.podfall.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, one request a connection: unlike {@link java.net.http.HttpClient} it sends any request
 * target (a malformed percent-escape, a {@code ..} segment left as is) and a body in chunks without a length, which is
 * what a hostile client can do. The response is read by its Content-Length or its chunks.
 */
final class RawHttp {
    private static final int TIMEOUT_MILLIS = 60_000;

    private final String host;
    private final int port;

    RawHttp(String server) {
        URI uri = URI.create(server);
        this.host = uri.getHost();
        this.port = uri.getPort();
    }

    /** {@code chunked}: the body goes in 64 KiB chunks with no Content-Length. */
    record Request(String method, String target, String contentType, byte[] body, boolean chunked) {}

    record Response(int code, Map<String, String> headers, byte[] body) {
        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    Response send(Request r) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            StringBuilder head = new StringBuilder(r.method())
                    .append(' ')
                    .append(r.target())
                    .append(" HTTP/1.1\r\n")
                    .append("Host: ")
                    .append(host)
                    .append(':')
                    .append(port)
                    .append("\r\n")
                    .append("Accept: application/json\r\n");
            if (r.contentType() != null) {
                head.append("Content-Type: ").append(r.contentType()).append("\r\n");
            }
            if (r.body() != null) {
                head.append(
                        r.chunked() ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + r.body().length + "\r\n");
            }
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            try {
                writeBody(out, r);
            } catch (IOException refusedEarly) {
                // The server may answer (a 413, say) and close before it has read the whole body: read that answer.
            }
            return read(in);
        }
    }

    private static void writeBody(OutputStream out, Request r) throws IOException {
        if (r.body() == null) {
            out.flush();
            return;
        }
        if (!r.chunked()) {
            out.write(r.body());
        } else {
            for (int at = 0; at < r.body().length; at += 65536) {
                int n = Math.min(65536, r.body().length - at);
                out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(r.body(), at, n);
                out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        out.flush();
    }

    private static Response read(InputStream in) throws IOException {
        String status = line(in);
        String[] parts = status.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP response: " + status);
        }
        int code = Integer.parseInt(parts[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            headers.put(
                    h.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    h.substring(colon + 1).trim());
        }
        byte[] body;
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int n = Integer.parseInt(line(in).split(";")[0].trim(), 16);
                    n > 0;
                    n = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
                b.write(in.readNBytes(n));
                line(in);
            }
            body = b.toByteArray();
        } else if (headers.containsKey("content-length")) {
            body = in.readNBytes(Integer.parseInt(headers.get("content-length")));
        } else {
            body = in.readAllBytes();
        }
        return new Response(code, headers, body);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("the connection closed mid-response");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
