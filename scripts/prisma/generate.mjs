#!/usr/bin/env node
// postinstall: generate the Prisma client into server/generated/prisma (gitignored) without network.
import { runPrisma } from "./cli.mjs";

process.exit(runPrisma(["generate"]));
