# Debian's PgBouncer, configured by the pgbouncer.ini and userlist.txt that deploy/compose.yaml mounts.
FROM debian:bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends pgbouncer \
  && rm -rf /var/lib/apt/lists/*
USER postgres
EXPOSE 6432
CMD ["pgbouncer", "/etc/pgbouncer/pgbouncer.ini"]
