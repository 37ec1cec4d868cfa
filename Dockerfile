# The release image (GoReleaser's dockers_v2 in .goreleaser.yaml puts each
# platform's static binary at $TARGETPLATFORM/mcpprobe in the context).
# Distroless static: no shell, no package manager, a non-root user; stdio
# servers that need a runtime (node, python) belong in an image built
# FROM one that has it, with mcpprobe copied in.
FROM gcr.io/distroless/static-debian12:nonroot
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/mcpprobe /usr/local/bin/mcpprobe
ENTRYPOINT ["/usr/local/bin/mcpprobe"]
