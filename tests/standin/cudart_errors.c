/* Error names and texts, and the thread's last error. */
#include "cudart_internal.h"

/* Every code of the CUDA 13.0 header, named; the text where the stand-in
 * knows the real one, else the name. */
#define ERROR(code, text) {code, #code, text}
static const struct {
    cudaError_t code;
    const char *name, *text;
} errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    ERROR(cudaErrorInvalidValue, "invalid argument"),
    ERROR(cudaErrorMemoryAllocation, "out of memory"),
    ERROR(cudaErrorInitializationError, "initialization error"),
    ERROR(cudaErrorCudartUnloading, "driver shutting down"),
    ERROR(cudaErrorProfilerDisabled, NULL),
    ERROR(cudaErrorProfilerNotInitialized, NULL),
    ERROR(cudaErrorProfilerAlreadyStarted, NULL),
    ERROR(cudaErrorProfilerAlreadyStopped, NULL),
    ERROR(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    ERROR(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    ERROR(cudaErrorInvalidSymbol, "invalid device symbol"),
    ERROR(cudaErrorInvalidHostPointer, NULL),
    ERROR(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    ERROR(cudaErrorInvalidTexture, NULL),
    ERROR(cudaErrorInvalidTextureBinding, NULL),
    ERROR(cudaErrorInvalidChannelDescriptor, NULL),
    ERROR(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    ERROR(cudaErrorAddressOfConstant, NULL),
    ERROR(cudaErrorTextureFetchFailed, NULL),
    ERROR(cudaErrorTextureNotBound, NULL),
    ERROR(cudaErrorSynchronizationError, NULL),
    ERROR(cudaErrorInvalidFilterSetting, NULL),
    ERROR(cudaErrorInvalidNormSetting, NULL),
    ERROR(cudaErrorMixedDeviceExecution, NULL),
    ERROR(cudaErrorNotYetImplemented, NULL),
    ERROR(cudaErrorMemoryValueTooLarge, NULL),
    ERROR(cudaErrorStubLibrary, NULL),
    ERROR(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version"),
    ERROR(cudaErrorCallRequiresNewerDriver, "API call is not supported in the installed CUDA driver"),
    ERROR(cudaErrorInvalidSurface, NULL),
    ERROR(cudaErrorDuplicateVariableName, NULL),
    ERROR(cudaErrorDuplicateTextureName, NULL),
    ERROR(cudaErrorDuplicateSurfaceName, NULL),
    ERROR(cudaErrorDevicesUnavailable, NULL),
    ERROR(cudaErrorIncompatibleDriverContext, NULL),
    ERROR(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    ERROR(cudaErrorPriorLaunchFailure, NULL),
    ERROR(cudaErrorLaunchMaxDepthExceeded, NULL),
    ERROR(cudaErrorLaunchFileScopedTex, NULL),
    ERROR(cudaErrorLaunchFileScopedSurf, NULL),
    ERROR(cudaErrorSyncDepthExceeded, NULL),
    ERROR(cudaErrorLaunchPendingCountExceeded, NULL),
    ERROR(cudaErrorInvalidDeviceFunction, "invalid device function"),
    ERROR(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    ERROR(cudaErrorInvalidDevice, "invalid device ordinal"),
    ERROR(cudaErrorDeviceNotLicensed, NULL),
    ERROR(cudaErrorSoftwareValidityNotEstablished, NULL),
    ERROR(cudaErrorStartupFailure, NULL),
    ERROR(cudaErrorInvalidKernelImage, NULL),
    ERROR(cudaErrorDeviceUninitialized, "invalid device context"),
    ERROR(cudaErrorMapBufferObjectFailed, NULL),
    ERROR(cudaErrorUnmapBufferObjectFailed, NULL),
    ERROR(cudaErrorArrayIsMapped, NULL),
    ERROR(cudaErrorAlreadyMapped, NULL),
    ERROR(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device"),
    ERROR(cudaErrorAlreadyAcquired, NULL),
    ERROR(cudaErrorNotMapped, NULL),
    ERROR(cudaErrorNotMappedAsArray, NULL),
    ERROR(cudaErrorNotMappedAsPointer, NULL),
    ERROR(cudaErrorECCUncorrectable, NULL),
    ERROR(cudaErrorUnsupportedLimit, NULL),
    ERROR(cudaErrorDeviceAlreadyInUse, NULL),
    ERROR(cudaErrorPeerAccessUnsupported, NULL),
    ERROR(cudaErrorInvalidPtx, NULL),
    ERROR(cudaErrorInvalidGraphicsContext, NULL),
    ERROR(cudaErrorNvlinkUncorrectable, NULL),
    ERROR(cudaErrorJitCompilerNotFound, NULL),
    ERROR(cudaErrorUnsupportedPtxVersion, NULL),
    ERROR(cudaErrorJitCompilationDisabled, NULL),
    ERROR(cudaErrorUnsupportedExecAffinity, NULL),
    ERROR(cudaErrorUnsupportedDevSideSync, NULL),
    ERROR(cudaErrorContained, NULL),
    ERROR(cudaErrorInvalidSource, NULL),
    ERROR(cudaErrorFileNotFound, NULL),
    ERROR(cudaErrorSharedObjectSymbolNotFound, NULL),
    ERROR(cudaErrorSharedObjectInitFailed, NULL),
    ERROR(cudaErrorOperatingSystem, NULL),
    ERROR(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    ERROR(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    ERROR(cudaErrorLossyQuery, NULL),
    ERROR(cudaErrorSymbolNotFound, "named symbol not found"),
    ERROR(cudaErrorNotReady, "device not ready"),
    ERROR(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    ERROR(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    ERROR(cudaErrorLaunchTimeout, NULL),
    ERROR(cudaErrorLaunchIncompatibleTexturing, NULL),
    ERROR(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    ERROR(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    ERROR(cudaErrorSetOnActiveProcess, NULL),
    ERROR(cudaErrorContextIsDestroyed, NULL),
    ERROR(cudaErrorAssert, NULL),
    ERROR(cudaErrorTooManyPeers, NULL),
    ERROR(cudaErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped"),
    ERROR(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"),
    ERROR(cudaErrorHardwareStackError, NULL),
    ERROR(cudaErrorIllegalInstruction, NULL),
    ERROR(cudaErrorMisalignedAddress, NULL),
    ERROR(cudaErrorInvalidAddressSpace, NULL),
    ERROR(cudaErrorInvalidPc, NULL),
    ERROR(cudaErrorLaunchFailure, "unspecified launch failure"),
    ERROR(cudaErrorCooperativeLaunchTooLarge, NULL),
    ERROR(cudaErrorTensorMemoryLeak, NULL),
    ERROR(cudaErrorNotPermitted, "operation not permitted"),
    ERROR(cudaErrorNotSupported, "operation not supported"),
    ERROR(cudaErrorSystemNotReady, NULL),
    ERROR(cudaErrorSystemDriverMismatch, NULL),
    ERROR(cudaErrorCompatNotSupportedOnDevice, NULL),
    ERROR(cudaErrorMpsConnectionFailed, NULL),
    ERROR(cudaErrorMpsRpcFailure, NULL),
    ERROR(cudaErrorMpsServerNotReady, NULL),
    ERROR(cudaErrorMpsMaxClientsReached, NULL),
    ERROR(cudaErrorMpsMaxConnectionsReached, NULL),
    ERROR(cudaErrorMpsClientTerminated, NULL),
    ERROR(cudaErrorCdpNotSupported, NULL),
    ERROR(cudaErrorCdpVersionMismatch, NULL),
    ERROR(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    ERROR(cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"),
    ERROR(cudaErrorStreamCaptureMerge, NULL),
    ERROR(cudaErrorStreamCaptureUnmatched, "capture was not initiated in this stream"),
    ERROR(cudaErrorStreamCaptureUnjoined, NULL),
    ERROR(cudaErrorStreamCaptureIsolation, NULL),
    ERROR(cudaErrorStreamCaptureImplicit, "operation would make the legacy stream depend on a capturing blocking stream"),
    ERROR(cudaErrorCapturedEvent, NULL),
    ERROR(cudaErrorStreamCaptureWrongThread, "attempt to terminate a thread-local capture sequence from another thread"),
    ERROR(cudaErrorTimeout, NULL),
    ERROR(cudaErrorGraphExecUpdateFailure, NULL),
    ERROR(cudaErrorExternalDevice, NULL),
    ERROR(cudaErrorInvalidClusterSize, NULL),
    ERROR(cudaErrorFunctionNotLoaded, NULL),
    ERROR(cudaErrorInvalidResourceType, NULL),
    ERROR(cudaErrorInvalidResourceConfiguration, NULL),
    ERROR(cudaErrorUnknown, "unknown error"),
};

static __thread cudaError_t t_last_error;

/* Records a failure as cudaGetLastError reports it. */
cudaError_t rt_error(cudaError_t e)
{
    if (e != cudaSuccess)
        t_last_error = e;
    return e;
}

EXPORT const char *cudaGetErrorString(cudaError_t error)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error)
            return errors[i].text ? errors[i].text : errors[i].name;
    return "unrecognized error code";
}

EXPORT const char *cudaGetErrorName(cudaError_t error)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error)
            return errors[i].name;
    return "unrecognized error code";
}

EXPORT cudaError_t cudaGetLastError(void)
{
    cudaError_t e = t_last_error;
    t_last_error = cudaSuccess;
    return e;
}

EXPORT cudaError_t cudaPeekAtLastError(void)
{
    return t_last_error;
}
/* SPDX-License-Identifier: MIT */
