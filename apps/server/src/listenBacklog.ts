// Connections the kernel may hold completed before a server accepts them; Linux clamps it to
// net.core.somaxconn. Node's default (511) made a burst of 1,000 connections lose a third of their SYNs,
// each retried a second later (the bystander of such a burst waited ~1 s); Triton's HTTP server asks 1024.
// Both the HTTP and the gRPC port listen with it.
export const LISTEN_BACKLOG = 4096;
