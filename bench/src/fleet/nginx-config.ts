/** What the bench's front proxy needs: where it may write, where it listens, whom it balances. */
export interface ProxyConfig {
  /** A private folder for the pid file and temp paths, so nginx runs unprivileged beside any other. */
  dir: string;
  port: number;
  /** The instances' loopback ports. */
  upstreams: readonly number[];
  /** Keep-alive connections nginx holds to each instance. */
  keepalive: number;
}

/**
 * Plain round-robin, no sticky routing: round 2 of a flow lands on another instance than round 1
 * two times in three, which only works because every instance opens every other's tokens (one key).
 * No retries at the proxy: a failed round counts as an error here, not as a second try elsewhere.
 */
export function nginxConfig(config: ProxyConfig): string {
  const servers = config.upstreams.map((port) => `    server 127.0.0.1:${port};`).join("\n");
  const { dir } = config;
  return `daemon off;
# One process, the master doing the work: its pid is the proxy's whole CPU time.
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;
  upstream fleet {
${servers}
    keepalive ${config.keepalive};
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${config.port};
    location / {
      proxy_pass http://fleet;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_next_upstream off;
      proxy_read_timeout 30s;
    }
  }
}
`;
}
