#!/usr/bin/env bash
# Start the services the integration tests use (PostgreSQL, Redis) if they are down. The
# commands are this machine kind's own (see the env notes); on a developer laptop with other
# service managers, start them yourself and point STOKER_TEST_PG (a server URL, no database) / STOKER_TEST_REDIS.
set -u
pg_up() { pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! pg_up; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
if ! redis_up; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
fi
pg_up && echo "PostgreSQL: up" || echo "PostgreSQL: DOWN"
redis_up && echo "Redis: up" || echo "Redis: DOWN"
exit 0
