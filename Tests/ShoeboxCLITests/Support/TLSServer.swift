import Foundation
import XCTest

/// nginx serving a folder over HTTPS, with HTTP/2, on 127.0.0.1; its certificate
/// is self-signed for 127.0.0.1 (made by openssl) and is its own CA, so a client
/// trusts it only when told to. Started and stopped by a test. The access log
/// has one line per request: "PROTOCOL CONNECTION URI STATUS". With `proxyTo`, every
/// request goes to the fixture server on that loopback port (HTTP/1.1, unbuffered, so its
/// stalls, cuts and slow bodies reach the client as they happen) instead of the folder.
final class TLSServer {
    let port: Int
    let certificate: String
    let accessLog: String
    private let process = Process()

    init(root: String, in folder: URL, proxyTo upstream: Int? = nil) throws {
        let directory = folder.appendingPathComponent("tls-server").path
        try FileManager.default.createDirectory(atPath: directory + "/temp", withIntermediateDirectories: true)
        certificate = directory + "/certificate.pem"
        let key = directory + "/key.pem"
        try Self.run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                                          "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
                                          "-addext", "subjectAltName=IP:127.0.0.1"])
        port = try Self.freePort()
        accessLog = directory + "/access.log"
        let temp = directory + "/temp"
        let configuration = """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log;
        events { worker_connections 64; }
        http {
          log_format protocol '$server_protocol $connection $request_uri $status';
          access_log \(accessLog) protocol;
          types { image/jpeg jpg; }
          client_body_temp_path \(temp); proxy_temp_path \(temp); fastcgi_temp_path \(temp);
          uwsgi_temp_path \(temp); scgi_temp_path \(temp);
          server {
            listen 127.0.0.1:\(port) ssl http2;
            ssl_certificate \(certificate);
            ssl_certificate_key \(key);
            root \(root);
            \(upstream.map { """
            location / {
              proxy_pass http://127.0.0.1:\($0);
              proxy_http_version 1.1;
              proxy_buffering off;
              proxy_request_buffering off;
              proxy_read_timeout 60s;
            }
            """ } ?? "")
          }
        }
        """
        let file = directory + "/nginx.conf"
        try configuration.write(toFile: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", file, "-p", directory, "-e", directory + "/error.log"]
        try process.run()
        try waitUntilListening()
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    func url(_ path: String) -> String {
        "https://127.0.0.1:\(port)/\(path)"
    }

    /// The access log's lines, split into fields (stop the server first: it is then complete).
    func requests() throws -> [[String]] {
        try String(contentsOfFile: accessLog, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: " ").map(String.init)
        }
    }

    private func waitUntilListening() throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else { break }
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(socket)
            if connected { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stop()
        throw NSError(domain: "TLSServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx did not start on 127.0.0.1:\(port)"])
    }

    private static func freePort() throws -> Int {
        let output = try run("python3", ["-c", """
        import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])
        """])
        guard let port = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw NSError(domain: "TLSServer", code: 2, userInfo: [NSLocalizedDescriptionKey: "no free port: \(output)"])
        }
        return port
    }

    /// Runs a tool to completion; its stdout, or an error with its stderr.
    @discardableResult
    private static func run(_ program: String, _ arguments: [String]) throws -> String {
        let result = try ManualTool.run(program, arguments)
        guard result.status == 0 else {
            throw NSError(domain: "TLSServer", code: 3, userInfo: [NSLocalizedDescriptionKey: "\(program) failed: \(result.stderr)"])
        }
        return result.stdout
    }
}
