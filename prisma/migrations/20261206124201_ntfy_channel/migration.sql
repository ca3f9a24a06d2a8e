-- AlterEnum
ALTER TYPE "NotificationChannelKind" ADD VALUE 'ntfy';
